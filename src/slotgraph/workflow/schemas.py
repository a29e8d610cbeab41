"""JSON Schemas of stage inputs and outputs: see :mod:`slotgraph.config.json_schemas` (shared with agents'
HTTP tools, which assemble their bodies the same way)."""

from slotgraph.config.json_schemas import CompiledSchema, SchemaProblem, compile_schema, error_lines

__all__ = ["CompiledSchema", "SchemaProblem", "compile_schema", "error_lines"]
