import sys

from rt4chart.cli.main import main

sys.exit(main())
