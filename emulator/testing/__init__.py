"""Helpers for tests, demos and benchmarks: throwaway servers."""
