"""The Squadrons kit's parts: one module per part family, listed in `registry`."""
