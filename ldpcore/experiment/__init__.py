"""Protocols run end to end: a plain spec -> a typed Plan (every privacy number) -> a simulated run -> a Result
with its error metrics; sweeps over eps_c, the paper's table methods, the planner, and empirical audits of what
an adversary learns. Every per-encoding fact is asked of the encoding (ldpcore.oracles), never of a class name.

protocol   ProtocolSpec, Plan, plan(), run(), Result, Method, sweep, cells (Measured | Failed), metrics, the
           run without a shuffler, cells in one neighbouring notion
planning   the planner: PlanQuery -> answer -> PlanTable, both inverses
audit      run_audit(spec, data): each observer's attack, certified bounds, guessing risk, the demonstration
"""
