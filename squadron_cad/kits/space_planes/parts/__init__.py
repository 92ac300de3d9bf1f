"""The Space Planes kit's parts."""
