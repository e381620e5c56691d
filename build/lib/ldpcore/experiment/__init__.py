"""Protocols run end to end: a plain spec -> a typed Plan (every privacy number) -> a simulated
run -> a Result with its error metrics; sweeps over eps_c, the paper's table methods, and
empirical audits of what an adversary learns.

spec     ProtocolSpec, Plan, plan()
run      run(), Result, the central baseline, Method, evaluate, sweep, analytic curves
metrics  error metrics and the analytic RMSE
audit    distinguishing attacks by each observer, empirical epsilon lower bounds, guessing risk
"""
