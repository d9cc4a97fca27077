"""Time: injected time sources, clock readings from DGT clocks, time controls and flags."""
