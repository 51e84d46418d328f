"""The dashboard's shell: settings, text and figures (pure), and the Streamlit sidebar (ui.sidebar)."""
