"""The Mininet runtime: real kernel links and switch processes in network namespaces."""
