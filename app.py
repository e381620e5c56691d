"""ESA explorer: what anonymous local differential privacy costs and buys.

Run: python -m streamlit run app.py
"""
from pathlib import Path

import streamlit as st

# a local icon: Material icons as page icons are fetched from a font CDN
st.set_page_config(page_title="ESA explorer", page_icon=str(Path(__file__).parent / "assets" / "icon.png"),
                   layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/reconstruct.py", title="Reconstruct", icon=":material/image:", url_path="reconstruct"),
    st.Page("pages/tradeoffs.py", title="Trade-offs", icon=":material/show_chart:", url_path="tradeoffs"),
    st.Page("pages/report_table.py", title="Report table", icon=":material/table:", url_path="report-table"),
]

st.navigation(PAGES).run()
