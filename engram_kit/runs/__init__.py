"""Runs as artifacts: save an investigation as a JSON bundle, export it, replay it offline."""

from engram_kit.runs.bundle import BUNDLE_FORMAT, BUNDLE_VERSION, RunBundle, cassette_of, workspace_versions
from engram_kit.runs.replay import ReplayResult, replay

__all__ = ["BUNDLE_FORMAT", "BUNDLE_VERSION", "ReplayResult", "RunBundle", "cassette_of", "replay",
           "workspace_versions"]
