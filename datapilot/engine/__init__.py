"""The machinery that runs a question: plan checking, the executor, the pipeline, summaries."""
