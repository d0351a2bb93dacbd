"""An LLM judge of MQM and ESA translation studies on the people's scale (docs/evaluators.md): its
prompt, its answer read and placed (mode.py), its output made elsewhere (predictions.py), the
comparison with the people (report.py) and its errors as ESA-AI suggestions (suggesting.py)."""
