"""``python -m numerics.cli``: the ``attncheck`` command."""
from numerics.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
