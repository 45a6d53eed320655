"""The page's figures: plotly charts built from replies (no gradio, no JAX), one module per kind of figure."""
