"""Settings read from the environment and `.env` (see .env.example)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///fatetable.db"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: str = ""
    database_url: str = DEFAULT_DATABASE_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    shard_count: int | None = None
    shard_ids: list[int] | None = None
    # Only one process of a sharded deployment should push the command list to Discord.
    sync_commands: bool = True
    # A unit of work (queueing included) that takes longer is rolled back: "the table is busy".
    db_unit_timeout_seconds: float = Field(default=2.0, gt=0)
    # PostgreSQL: connections each process keeps open (units beyond wait for one).
    db_pool_size: int = Field(default=20, ge=1, le=500)
    # How often each process looks for idle games (the conditional writes make it act once).
    game_idle_check_seconds: float = Field(default=60.0, gt=0)
    # /healthz and /readyz on this port (off when unset); see docs/deployment.md.
    health_port: int | None = None
    # The live web view (docs/web.md): off unless WEB_PORT is set.
    web_port: int | None = Field(default=None, ge=0, le=65535)  # 0: any free port
    web_host: str = "0.0.0.0"
    # The address people open, as a reverse proxy serves it (default http://localhost:WEB_PORT).
    web_base_url: str = ""
    # Signs the links; empty: one is generated and kept in the database.
    web_secret: str = ""
    web_link_days: int = Field(default=30, ge=1, le=365)
    # Open pages also look again this often, for changes made by another process.
    web_recheck_seconds: float = Field(default=5.0, gt=0, le=3600)
    # Processes that draw the game boards' pictures (0: a thread of the bot's own process).
    picture_workers: int = Field(default=1, ge=0, le=16)
    game_idle_warn_minutes: int = Field(default=60, ge=1)
    game_idle_timeout_minutes: int = Field(default=240, ge=1)

    @field_validator("dev_guild_id", "shard_count", "health_port", "web_port", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value in ("", None) else value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _parse_ids(cls, value: object) -> object:
        if value in ("", None):
            return None
        if isinstance(value, int):  # SHARD_IDS=0 arrives JSON-decoded as a bare number
            return [value]
        if isinstance(value, str):
            return [int(part) for part in value.replace(" ", "").split(",") if part]
        return value


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
