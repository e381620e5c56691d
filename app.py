"""ESA explorer: what anonymous local differential privacy costs and buys.

Run: python -m streamlit run app.py
"""

import streamlit as st

from ui import PAGES, page_config, warm_up

page_config(entry=True)

st.navigation(
    [
        st.Page(path, title=title, icon=f":material/{icon}:", default=i == 0)
        for i, (path, title, icon) in enumerate(PAGES + (("pages/adversary.py", "Adversary", "visibility"),))
    ]
).run()
warm_up()  # then import the heavy libraries in the background, for the next page
