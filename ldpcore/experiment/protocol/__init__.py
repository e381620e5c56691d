"""One protocol run end to end: a plain spec -> a typed Plan (every privacy number) -> a simulated run -> a
Result with its error metrics; sweeps over eps_c, the paper's table methods, the same encoding without a
shuffler, cells restated in one neighbouring notion, and the per-bin view of a histogram.

spec            ProtocolSpec, Plan, plan()
run             run(), Result, the central baseline, Method, evaluate, sweep, analytic curves
metrics         error metrics and the analytic RMSE
compare         cells restated in one neighbouring notion
local_only      the encoding without a shuffler
histogram_view  the per-bin view of a histogram run
advice          valid but impractical settings, in words
"""
