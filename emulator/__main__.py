"""Allow ``python -m emulator`` as an alias of the ``fabemu`` console script."""

from emulator.cli.main import main

raise SystemExit(main())
