"""ESA explorer: what anonymous local differential privacy costs and buys.

Run: python -m streamlit run app.py  (then open http://localhost:8501)
The pages, their titles, icons and navigation sections come from ui/registry.py; their scripts live in
app_pages/, not pages/: a folder of that name next to this file starts Streamlit in its legacy pages mode, in
which a fresh server's first deep link runs the page's file without this script and its navigation.
"""

import streamlit as st

if __name__ == "__main__":  # Streamlit runs this file as the app's script, once per rerun of every session
    from ui.kit.navigation import arrived, follow_request
    from ui.kit.url import url_warnings
    from ui.registry import ICON, navigation

    # the settings of every page, set here once: the navigation runs each page inside this script
    st.set_page_config(page_title="ESA explorer", page_icon=str(ICON), layout="wide")
    page = st.navigation(navigation())
    follow_request()  # a button asked for another page (with its controls set): switch to it
    arrived(page.title)
    with url_warnings():  # every URL parameter the page does not take is said at its top
        page.run()
else:  # `streamlit run app.py` imports it once as the server (an st.App): its start imports the pages' libraries
    from ui.serve import lifespan

    app = st.App(__file__, lifespan=lifespan)
