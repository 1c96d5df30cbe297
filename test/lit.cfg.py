# The suite's configuration is the repository's lit.cfg.py (lit looks for it next to the tests).
import os
lit_config.load_config(config, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lit.cfg.py"))
