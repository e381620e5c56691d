"""LDP-SGD: a model trained from shuffled eps_l-LDP gradient reports (ESA paper Sec. VI, ICDE 2019 Sec. V)."""

from functools import partial

import numpy as np
import streamlit as st

from ldpcore.export.reproduce import SGDView
from ldpcore.export.view_records import sgd_record
from ldpcore.systems.sgd import (
    EXPLANATION,
    GRADIENT_MECHANISMS,
    LOSSES,
    MECHANISM_HELP,
    SGDConfig,
    calibrate,
    nonprivate_config,
)
from ui.kit.controls import delta_slider, eps_slider, noted_metric, seed_input
from ui.kit.feedback import input_errors
from ui.kit.take_home import take_home
from ui.sgd import accuracy_figure, composition_figure, dataset, training

TARGETS = ("eps_c", "eps_l")

st.title("LDP-SGD")
st.caption(EXPLANATION)
with st.sidebar:
    st.header("Data")
    n = int(
        st.number_input(
            "n (respondents)",
            min_value=1_000,
            max_value=200_000,
            value=20_000,
            step=1_000,
            key="sgd_n",
            bind="query-params",
        )
    )
    p = int(st.number_input("p (features)", min_value=1, max_value=100, value=10, key="sgd_p", bind="query-params"))
    classes = int(
        st.number_input("classes", min_value=2, max_value=10, value=2, key="sgd_classes", bind="query-params")
    )
    separation = st.slider(
        "Class separation (noise sds)", 0.0, 8.0, 3.0, 0.5, key="sgd_separation", bind="query-params"
    )
    seed = seed_input("sgd_seed")
    st.header("Training")
    losses = [name for name, loss in LOSSES.items() if loss.multiclass == (classes > 2)]
    loss = st.selectbox("Loss", losses, key="sgd_loss", bind="query-params")
    st.caption(LOSSES[loss].title)
    mechanism = st.selectbox("Mechanism", GRADIENT_MECHANISMS, key="sgd_mech", bind="query-params")
    st.caption(MECHANISM_HELP[mechanism])
    epochs = int(st.number_input("epochs", min_value=1, max_value=50, value=5, key="sgd_epochs", bind="query-params"))
    batch = int(
        st.number_input(
            "batch size", min_value=1, max_value=200_000, value=1_000, step=100, key="sgd_batch", bind="query-params"
        )
    )
    lr = st.number_input(
        "learning rate lr",
        min_value=0.01,
        max_value=10.0,
        value=1.0,
        step=0.1,
        key="sgd_lr",
        bind="query-params",
        help="The step at iteration t is lr/sqrt(t).",
    )
    st.header("Privacy")
    target = st.radio(
        "Set",
        TARGETS,
        key="sgd_target",
        bind="query-params",
        horizontal=True,
        help="eps_c: the central eps to certify over all epochs (the page finds the largest eps_l); "
        "eps_l: the local eps of each report.",
    )
    if target == "eps_c":
        eps = eps_slider("central eps_c over all epochs (log scale)", "sgd_eps_c", 1.0, lo=0.05)
    else:
        eps = eps_slider("eps_l per report (log scale)", "sgd_eps_l", 2.0, lo=0.05)
    delta = delta_slider("central delta", "sgd_delta")

with input_errors():
    data = dataset(n, p, classes, separation, seed)
    config = SGDConfig(mechanism=mechanism, eps=eps, loss=loss, epochs=epochs, batch_size=batch, lr=lr, delta=delta)
    chosen = config  # before calibration: what the view's script calibrates again
    if target == "eps_c":  # eps is the central target: the largest eps_l per report that certifies it
        config, _ = calibrate(config, n, eps)
    data_key = f"{n}:{p}:{classes}:{separation}:{seed}"
    result = training(data_key, data, config.as_dict(), seed)
    baseline = training(data_key, data, nonprivate_config(config).as_dict(), seed)  # shared across eps and delta
acc = result.accounting

st.caption(
    f"{data.description}; {result.iterations:,} iterations ({result.batches_per_epoch:,} batches of "
    f"{result.batch_size:,}+ per epoch); seed {seed}."
)
if result.warning:
    st.warning(result.warning)
cols = st.columns(5)
noted_metric(
    cols[0],
    "eps_l per report",
    f"{acc.eps_l:.3g}",
    f"{acc.eps_l_total:.3g} over {epochs} epochs",
    help="Local eps of one report (= one epoch); over the epochs by basic composition (replacement).",
)
cols[1].metric(
    "eps_c per epoch",
    f"{acc.per_epoch.eps_c:.3g}" if acc.valid else "not certified",
    help=f"Amplification by shuffling a batch of {acc.batch_size:,} reports ({acc.bound}, "
    f"delta {acc.delta_epoch:.1e}); the disjoint batches of one epoch compose in parallel.",
)
noted_metric(
    cols[2],
    "eps_c (certified)",
    f"{acc.eps_c:.3g}" if acc.valid else "not certified",
    f"at delta {acc.delta_c:.1e}" if acc.valid else None,
    help="The smaller of basic and advanced composition (Theorem II.7) over the epochs.",
)
noted_metric(
    cols[3],
    "test accuracy",
    f"{result.final_accuracy:.3f}",
    f"baseline {baseline.final_accuracy:.3f}",
    help="After the last iteration; below it the same training without noise (the clipped gradients averaged exactly).",
)
cols[4].metric(
    "Bayes rule accuracy",
    f"{data.reference_accuracy:.3f}",
    help="The best any classifier can do on this test set (the generating rule).",
)
st.caption(acc.summary())

left, right = st.columns([3, 2])
left.plotly_chart(
    accuracy_figure(result, baseline, data.reference_accuracy, f"{mechanism} at eps_l = {acc.eps_l:.3g}"),
    width="stretch",
)
per_epoch = {
    "epoch": np.arange(1, epochs + 1),
    "test accuracy": result.epoch_test_accuracy,
    "baseline accuracy": baseline.epoch_test_accuracy,
    "test loss": result.epoch_test_loss,
    "train loss": result.epoch_train_loss,
}
if acc.valid:
    _, basic, advanced = acc.by_epoch()
    right.plotly_chart(composition_figure(per_epoch["epoch"], basic, advanced, acc.eps_c), width="stretch")
    per_epoch |= {"eps_c so far (basic)": basic, "eps_c so far (advanced)": advanced}
else:
    right.warning(f"No central guarantee: {acc.reason}")
st.dataframe(
    per_epoch,
    width="stretch",
    hide_index=True,
    column_config={c: st.column_config.NumberColumn(format="%.4g") for c in list(per_epoch)[1:]},
)
view = SGDView(n, p, classes, separation, seed, chosen, target, eps)
take_home(view, "sgd", partial(sgd_record, data, seed, config, result, baseline))
