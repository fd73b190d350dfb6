"""The ground every room stands on: errors, atomic files, the disk cache, progress, data types, options."""
