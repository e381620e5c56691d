"""What several pages share: URL-bound controls (controls), the data sidebar (inputs, records) and the protocol
sidebar (protocol), the shared caches within a byte budget (cache) and the cached runs of the protocol pages
(runs), the one place an InputError becomes an st.error line (feedback), numbers as people read them (format),
plotly axes and colours (axes, colours) and the export of any chart for a paper (chart_export)."""
