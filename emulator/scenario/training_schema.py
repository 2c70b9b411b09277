"""The ``workload.job`` section of a ``training_step`` scenario (pydantic).

Parallelism degrees in Llama 3's order [TP, CP, PP, DP]; message sizes from ``model`` (or
explicit ``bytes``); mapping, placement and per-axis collective algorithms are switches.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Algorithm = Literal["ring", "halving_doubling", "hierarchical"]
Positive = Annotated[int, Field(ge=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelSpec(_Strict):
    """The model and batch the per-step bytes derive from (default: Llama-3-8B-like)."""

    params: Annotated[float, Field(gt=0)] = 8e9
    layers: Positive = 32
    hidden: Positive = 4096
    seq_len: Positive = 8192
    micro_batch: Positive = 1
    micro_batches: Positive = 8
    bytes_per_value: Positive = 2


class StepBytesSpec(_Strict):
    """Explicit per-rank bytes per step of each axis (emulated bytes, not scaled again)."""

    tp: Positive = 1
    cp: Positive = 1
    pp: Positive = 1
    dp: Positive = 1


class AxisAlgorithms(_Strict):
    """Collective algorithm of each axis that runs a collective."""

    tp: Algorithm = "ring"
    cp: Algorithm = "ring"
    dp: Algorithm = "ring"


class TrainingJob(_Strict):
    """A training job: ranks, degrees, where it runs and how it communicates."""

    ranks: Positive
    tp: Positive = 1
    cp: Positive = 1
    pp: Positive = 1
    dp: Positive = 1
    #: GPUs of one server (NVLink domain); a rack's GPUs are cut into servers of this size
    gpus_per_server: Positive = 8
    mapping: Literal["topology_aware", "naive", "random"] = "topology_aware"
    placement: Literal["min_cut", "random"] = "min_cut"
    algorithms: AxisAlgorithms = AxisAlgorithms()
    dp_collective: Literal["allreduce", "reducescatter_allgather"] = "allreduce"
    model: ModelSpec = ModelSpec()
    bytes: StepBytesSpec | None = None
    #: extra factor on the topology's rate_scale for model-derived bytes (1 = real-time equal)
    bytes_scale: Annotated[float, Field(gt=0, le=1)] = 1.0
    #: NVLink bandwidth per GPU at full scale; scaled with the topology's rate_scale
    nvlink_gbps: Annotated[float, Field(gt=0)] = 3600.0
    #: compute time of the step (a local stage; exposed communication = step - compute)
    compute_ms: Annotated[float, Field(ge=0)] = 0.0

    @model_validator(mode="after")
    def _degrees_multiply_to_ranks(self) -> TrainingJob:
        product = self.tp * self.cp * self.pp * self.dp
        if product != self.ranks:
            raise ValueError(
                f"tp*cp*pp*dp = {self.tp}*{self.cp}*{self.pp}*{self.dp} = {product} "
                f"must equal ranks ({self.ranks})"
            )
        for axis in ("tp", "cp", "dp"):
            n = getattr(self, axis)
            if getattr(self.algorithms, axis) == "halving_doubling" and n & (n - 1):
                raise ValueError(
                    f"algorithms.{axis}: halving_doubling needs a power-of-two {axis}, got {n}"
                )
        return self
