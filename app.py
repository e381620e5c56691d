"""ESA explorer: what anonymous local differential privacy costs and buys.

Run: python -m streamlit run app.py  (then open http://localhost:8501)
The pages, their titles, icons and navigation sections come from ui/registry.py.
"""

import streamlit as st

if __name__ == "__main__":  # Streamlit runs this file as the app's script, once per rerun of every session
    from ui import page_config
    from ui.registry import PAGES, by_section

    page_config(entry=True)
    st.navigation(
        {
            section: [
                st.Page(p.path, title=p.title, icon=p.material_icon, url_path=p.url_path or None, default=p is PAGES[0])
                for p in pages
            ]
            for section, pages in by_section().items()
        }
    ).run()
else:  # `streamlit run app.py` imports it once as the server (an st.App): its start imports the pages' libraries
    from ui.serve import lifespan

    app = st.App(__file__, lifespan=lifespan)
