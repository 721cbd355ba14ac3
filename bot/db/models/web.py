"""The live web view: the key its links are signed with and the links' revocation counters."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Integer, String, Text
from sqlmodel import Field, SQLModel


class WebKey(SQLModel, table=True):
    """The secret web links are signed with (one row, id 1), made on first use when the
    `WEB_SECRET` setting is empty, so that every process of a deployment signs alike."""

    __tablename__ = "web_key"

    id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    secret: str = Field(sa_column=Column(Text, nullable=False))


class WebLinkGeneration(SQLModel, table=True):
    """How many times the links of one campaign or character were revoked. A link carries the
    generation it was made at; revoking adds one, so every older link stops working."""

    __tablename__ = "web_link_generation"

    scope: str = Field(sa_column=Column(String(16), primary_key=True))  # "campaign", "character"
    scope_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    generation: int = Field(default=0, sa_column=Column(Integer, nullable=False))
