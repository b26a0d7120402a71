"""The handoff: what one session leaves for the next after a context reset.

``artifact`` (the ``HandoffArtifact`` and its markdown/JSON forms), ``draft`` (reading what a
model wrote), ``generation`` (asking a model, grounding, budget), ``prompt`` (rendering a session
for the writer), ``facts``/``facts_aider``/``grounded`` (what the tools prove). Import from the
modules; this package module deliberately re-exports nothing, so no submodule depends on it.
"""
