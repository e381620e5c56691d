"""Streamlit helpers shared by the pages: widgets -> ldpcore inputs, cached calls, figures.

No privacy or estimation logic lives here; everything is computed by ldpcore.
"""
