"""The package version, recorded in every manifest and cache key."""
__version__ = "0.1.0"
