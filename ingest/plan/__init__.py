"""Date windows, roles by date, version pins and the PDF plan of a build."""
