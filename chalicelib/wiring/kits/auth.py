"""What keys, machine onboarding and the web console's sign-in are built from."""

from chalicelib.auth.adapters.key_repository import invite_units, key_units
from chalicelib.auth.services.authenticator import Authenticator
from chalicelib.auth.services.key_admin import KeyAdmin
from chalicelib.auth.services.machine_onboarding import MachineOnboarding
from chalicelib.console.adapters.console_reads import console_reads
from chalicelib.console.adapters.console_repository import console_units
from chalicelib.console.services.console_auth import ConsoleAuth
from chalicelib.console.services.reads import ReadsFactory
from chalicelib.kernel.secrets import RefreshedSecret
