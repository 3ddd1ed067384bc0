"""hbmlint: lint LLM serving manifests for their GPU memory (HBM) budget."""

__version__ = "0.1.0"
