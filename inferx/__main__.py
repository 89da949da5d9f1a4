import sys

from inferx.cli import main

sys.exit(main())
