"""Estimators (fitted from simulated data; they never import ``derivations``)."""
