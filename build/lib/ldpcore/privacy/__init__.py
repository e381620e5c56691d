"""The privacy layer: amplification bounds (forward, conservative inverse, validity, citation),
the exact curve of shuffled binary randomized response, numerical clones and the privacy
blanket, report fragments (Theorem IV.1), the central Gaussian baseline and the side-by-side
comparison of every bound. It knows nothing about encodings: ldpcore.oracles builds on it.

bounds      Bound, Amplification, the registry (BOUNDS, get_bound)
tight       the worst-case exact curve of shuffled binary RR
clones      Feldman-McMillan-Talwar numerical clones, Balle et al.'s blanket sums
fragments   eps of t report fragments, the eps_f rules
central     the analytic Gaussian mechanism
accountant  every bound at the same inputs (the Accountant page)
"""
