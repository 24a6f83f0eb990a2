"""Which checkpoint folders the app may open. On loopback (the default) the Checkpoint field takes any folder,
as the command line's --model does. Served to the network, anyone who reaches the page could make the server
open any folder on its disk and learn which paths exist: then only the shipped verifier and the folders the
operator lists in RT4CHART_MODELS (separated by the path separator) can be chosen, and the choice is checked
again where the judge is built, not only in the sidebar."""
from __future__ import annotations

import ipaddress
import os
from typing import Optional

from rt4chart.core.errors import JudgeConfigError


def served_address() -> Optional[str]:
    """The address the app listens on: RT4CHART_ADDRESS (scripts/app.sh), else Streamlit's server.address
    (None: Streamlit's default, every interface)."""
    if os.environ.get("RT4CHART_ADDRESS"):
        return os.environ["RT4CHART_ADDRESS"]
    try:
        import streamlit as st

        return st.get_option("server.address") or None
    except Exception:  # noqa: BLE001 - outside a Streamlit server (a test): as scripts/app.sh serves it
        return "127.0.0.1"


def served_to_network(address: Optional[str] = None) -> bool:
    address = served_address() if address is None else address
    if address is None:
        return True
    if address == "localhost":
        return False
    try:
        return not ipaddress.ip_address(address).is_loopback
    except ValueError:  # a host name: it may resolve to any interface
        return True


def listed() -> list[str]:
    """The checkpoint folders the operator allows when the app is served to the network."""
    return [p for p in os.environ.get("RT4CHART_MODELS", "").split(os.pathsep) if p.strip()]


def allowed(checkpoint: Optional[str], address: Optional[str] = None) -> Optional[str]:
    """`checkpoint` when this app may open it (None: the shipped verifier), else a one-line refusal."""
    if not checkpoint or not served_to_network(address) or checkpoint in listed():
        return checkpoint or None
    raise JudgeConfigError("this app is served to the network (RT4CHART_ADDRESS), so it opens only the shipped "
                           "verifier and the checkpoints its operator lists in RT4CHART_MODELS")
