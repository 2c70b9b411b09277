"""The run plan: one frozen, typed description of a run, built once from a scenario.

spec      RunPlan, RunOptions, WorkloadPlan (what the runtimes take)
build     build_plan(scenario, path, runtime, target) -> RunPlan (the one place it is built)
workload  the scenario's workload as a ``workload_from_dict`` mapping, hosts placed once
compat    incompatibility(fabric, target, runtime, workload kind): the one check
"""
