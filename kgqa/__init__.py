"""The `kgqa` command line and the settings object shared by every layer's caller."""
