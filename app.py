"""ESA explorer: what anonymous local differential privacy costs and buys.

Run: python -m streamlit run app.py
"""
import streamlit as st

from ui import page_config, warm_up

page_config(entry=True)

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/reconstruct.py", title="Reconstruct", icon=":material/image:"),
    st.Page("pages/tradeoffs.py", title="Trade-offs", icon=":material/show_chart:"),
    st.Page("pages/report_table.py", title="Report table", icon=":material/table:"),
    st.Page("pages/accountant.py", title="Accountant", icon=":material/calculate:"),
    st.Page("pages/multimessage.py", title="Multi-message", icon=":material/forum:"),
    st.Page("pages/numeric.py", title="Numeric", icon=":material/functions:"),
    st.Page("pages/longitudinal.py", title="Longitudinal", icon=":material/timeline:"),
    st.Page("pages/sgd.py", title="LDP-SGD", icon=":material/model_training:"),
    st.Page("pages/crowds.py", title="Crowd IDs", icon=":material/groups:"),
]

st.navigation(PAGES).run()
warm_up()  # then import the heavy libraries in the background, for the next page
