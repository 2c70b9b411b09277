"""Tests of the topology layer."""
