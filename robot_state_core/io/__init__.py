"""Loading and saving robot descriptions (URDF, SRDF) and resolving their resources."""
