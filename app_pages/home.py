"""Home: what ESA is, what each number means, who is protected against whom."""

from pathlib import Path

import streamlit as st

from ui.registry import PAGES, by_section

st.title("What anonymous local differential privacy costs and buys")
st.markdown(
    "**Encode, Shuffle, Analyze (ESA).** Each respondent's phone *encodes* its value and randomizes it "
    "with local differential privacy (LDP); independent *shufflers* strip identities and batch and permute "
    "the messages; the *analyzer* sees only the shuffled multiset and estimates the histogram. Because each "
    "report hides in a crowd of n others, a weak local guarantee (large eps_l) amplifies into a strong "
    "central one (small eps_c) — Erlingsson et al., *Encode, Shuffle, Analyze Privacy Revisited* (2020)."
)
st.image(
    str(Path(__file__).resolve().parent.parent / "assets" / "esa.svg"),
    width="stretch",
    caption="One-hot reports with attribute fragments: every set bit is its own anonymous message to the "
    "shuffler of its bin.",
)

st.subheader("The numbers on the other pages")
st.markdown("""
| number | what it means | who it protects you from |
|---|---|---|
| **eps_c** (central) | DP of the analyzer's view: the shuffled reports of all n respondents, at failure probability **delta** | the analyzer, as long as the shufflers do not collude with it |
| **eps_l_inf** | LDP of *everything* one respondent sends (one-hot: zero-out neighbours, the value against the null report) | anyone who sees all of one respondent's messages, e.g. every shuffler colluding with the analyzer |
| **eps_l_1** | LDP of a single report fragment (Theorem IV.1) | one captured shuffler |
| **eps_b / eps_f** | backstop and fragment epsilons of report fragmentation (Algorithm 2) | — parameters behind eps_l_inf and eps_l_1 |
| **messages / respondent** | expected anonymous messages per respondent (one-hot and the fragmented sketch: one per set bit; the other encodings: one report) and the bits of one message | — the communication cost |
| **RMSE, l_inf** | per-bin error of the reconstruction (clipped to [0, input max]) | — the utility cost |

All epsilons are in nats. Zero-out neighbours (one-hot, the fragmented sketch): one respondent's value
replaced by the null value, whose report is the randomized all-zeros vector; replacement neighbours (the other
encodings): one value replaced by another. For one-hot, replacement costs twice the zero-out epsilon locally
(two bits change) and, centrally, the accountant's two changed channels composed.
The **accountant** turns eps_c into eps_l: the paper's Lemma II.6 (Cheu et al.) is the default; its
Theorem III.1 closed form is looser.
""")

st.subheader("Quick start")
st.markdown("""
1. **Reconstruct**: pick a bundled image (Horse, Child, Map) or upload your own image or histogram CSV,
   move **eps_c**, and watch the local guarantees, the messages per phone and the reconstruction change.
   Turn on **report fragments** to split each report into tau fragments with a backstop.
   Switch the **encoding** to compare one-hot with direct encoding (GRR), unary encodings, local hashing
   (OLH, SOLH), Hadamard response, fake reports from several shufflers (MURS) and Apple-style sketches
   (the paper's fragmented sketch has no certified eps_c), each with its own parameters.
2. **Trade-offs**: sweep eps_c for several methods and encodings: error, eps_l and messages against eps_c.
3. **Report table**: the paper's Table IV for your data, exported as PNG, CSV, Markdown or LaTeX.
4. **Accountant**: every known amplification bound side by side, local <-> central epsilon, with the
   tight accountant that buys about 2 nats of eps_l at the same eps_c.
5. **Multi-message**: single against multiple anonymous messages as n grows, and who can see what
   with one shuffler, HE aggregation, MURS or PEOS.
6. The other systems of the source papers: **Numeric** attributes, **Longitudinal** collection of a
   changing value, **LDP-SGD**, and **Crowd IDs**.

Every view's settings live in its URL: copy it to share or reproduce a result (same seed, same numbers).
""")
for section, entries in by_section().items():  # the navigation's sections (ui/registry.py)
    links = [p for p in entries if p is not PAGES[0]]
    if links:
        st.markdown(f"**{section}**")
        cols = st.columns(3)
        for i, p in enumerate(links):
            cols[i % 3].page_link(p.path, label=p.title, icon=p.material_icon)
