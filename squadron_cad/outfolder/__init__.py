"""Output folders the tool owns: safe to write, built aside, swapped in whole.

A build writes into a staging folder beside the output folder (same filesystem; inside it
when it is a mount point), and only a finished, verified output is swapped into place. At
every instant the output folder holds the whole previous output or the whole new one (on a
mount point: but for the milliseconds of the swap, which a rerun completes if it was cut
short). Runs into one folder exclude each other (squadron_cad.outfolder.claims).

The tool deletes only what it wrote: every output folder carries an ownership record
(`.squadron-cad.json`) listing each file with its SHA-256 and the folders it made, and
cleanup removes exactly those, unchanged files only. A folder holding anything else is
refused as an output folder; a file of ours the maker changed is never written over.
"""

from squadron_cad.outfolder.claims import remove_stale_staging
from squadron_cad.outfolder.clean import Cleaned, clean_output
from squadron_cad.outfolder.folders import (
    KIND_NAMES,
    PROJECT_ROOT,
    foreign_files,
    prepare_cache,
    refuse_edited,
    refused_replacing,
    safe_output_folder,
    shared_cache_folder,
)
from squadron_cad.outfolder.record import (
    CACHE_ENV,
    CACHE_NAME,
    CACHE_SIGNATURE,
    CACHE_TAG,
    KEEP_NAMES,
    LEGACY_MANIFEST,
    OLD_KIT,
    PREVIEWS_NAME,
    RECORD_NAME,
    STAGING_TOKEN,
    Ownership,
    edited_files,
    hash_files,
    is_our_cache,
    read_ownership,
)
from squadron_cad.outfolder.removal import Removal, remove_owned
from squadron_cad.outfolder.staging import (
    Staging,
    no_trace_if_unfinished,
    staged,
)

__all__ = [
    "CACHE_ENV",
    "CACHE_NAME",
    "CACHE_SIGNATURE",
    "CACHE_TAG",
    "KEEP_NAMES",
    "KIND_NAMES",
    "LEGACY_MANIFEST",
    "OLD_KIT",
    "PREVIEWS_NAME",
    "PROJECT_ROOT",
    "RECORD_NAME",
    "STAGING_TOKEN",
    "Cleaned",
    "Ownership",
    "Removal",
    "Staging",
    "clean_output",
    "edited_files",
    "foreign_files",
    "hash_files",
    "is_our_cache",
    "no_trace_if_unfinished",
    "prepare_cache",
    "read_ownership",
    "refuse_edited",
    "refused_replacing",
    "remove_owned",
    "remove_stale_staging",
    "safe_output_folder",
    "shared_cache_folder",
    "staged",
]
