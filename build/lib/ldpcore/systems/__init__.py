"""Systems built on the privacy and oracle layers: numeric and multidimensional data, values that
change over time, LDP-SGD, crowd IDs, heavy hitters at paper scale, and who can see what when
parties collude (single vs multiple anonymous messages, fake reports)."""
