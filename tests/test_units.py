"""units: parsing and printing quantities."""

from __future__ import annotations

import math

import pytest

from hbmlint.units import Q, UnitError, format_quantity, parse_quantity

MEMORY = "[information]"
RATIO = "[]"


def gib(value) -> float:
    return float(value.to("GiB").magnitude)


def test_gibibytes():
    assert gib(parse_quantity("80 GiB", MEMORY)) == pytest.approx(80)
    assert parse_quantity("80 GiB", MEMORY).to("byte").magnitude == 80 * 2**30


def test_mebibytes_as_nvidia_smi_prints_them():
    assert gib(parse_quantity("81559 MiB", MEMORY)) == pytest.approx(81559 / 1024)


def test_decimal_gigabytes_are_not_gibibytes():
    gb = parse_quantity("80 GB", MEMORY)
    assert gb.to("byte").magnitude == pytest.approx(80e9)
    assert gb < parse_quantity("80 GiB", MEMORY)
    assert gib(gb) == pytest.approx(74.506, abs=1e-3)


@pytest.mark.parametrize("text", ["10 percent", "10 %", "10%"])
def test_percent_is_a_ratio(text):
    assert parse_quantity(text, RATIO).to("dimensionless").magnitude == pytest.approx(0.10)


def test_bare_number_ratio_needs_no_unit():
    assert parse_quantity(0.9, RATIO).to("dimensionless").magnitude == pytest.approx(0.9)
    assert parse_quantity("0.9", RATIO).to("dimensionless").magnitude == pytest.approx(0.9)


@pytest.mark.parametrize("value", [80, 80.0, "80"])
def test_bare_number_takes_the_default_unit(value):
    assert gib(parse_quantity(value, MEMORY, default_unit="GiB")) == pytest.approx(80)


@pytest.mark.parametrize("value", [80, "80"])
def test_bare_number_without_default_unit_is_not_read_as_bytes(value):
    with pytest.raises(UnitError, match="no unit"):
        parse_quantity(value, MEMORY)


def test_wrong_dimension_says_what_it_is_and_what_was_expected():
    with pytest.raises(UnitError) as caught:
        parse_quantity("80 seconds", MEMORY)
    message = str(caught.value)
    assert "time" in message or "second" in message
    assert "memory" in message


def test_ratio_is_not_memory():
    with pytest.raises(UnitError, match="memory"):
        parse_quantity("10 percent", MEMORY)


def test_memory_is_not_a_ratio():
    with pytest.raises(UnitError, match="ratio"):
        parse_quantity("80 GiB", RATIO)


def test_unknown_unit():
    with pytest.raises(UnitError, match="furlongs"):
        parse_quantity("80 furlongs", MEMORY)


@pytest.mark.parametrize("text", ["lots", "GiB", ""])
def test_not_a_quantity_at_all(text):
    with pytest.raises(UnitError):
        parse_quantity(text, MEMORY)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(value):
    with pytest.raises(UnitError, match="finite"):
        parse_quantity(value, MEMORY, default_unit="GiB")


@pytest.mark.parametrize("text", ["nan GiB", "inf GiB", "1e400 GiB"])
def test_non_finite_strings_are_refused(text):
    with pytest.raises(UnitError):
        parse_quantity(text, MEMORY)


@pytest.mark.parametrize("value", [True, False])
def test_booleans_are_not_numbers(value):
    with pytest.raises(UnitError, match="boolean"):
        parse_quantity(value, RATIO)
    with pytest.raises(UnitError, match="boolean"):
        parse_quantity(value, MEMORY, default_unit="GiB")


def test_format_bytes_in_gib_with_two_decimals():
    assert format_quantity(Q(80, "GiB")) == "80.00 GiB"
    assert format_quantity(Q(80, "GB")) == "74.51 GiB"
    assert format_quantity(Q(1536, "MiB")) == "1.50 GiB"
    assert format_quantity(Q(-2, "GiB")) == "-2.00 GiB"


def test_format_bytes_in_gb_when_asked():
    assert format_quantity(Q(80, "GB"), byte_unit="GB") == "80.00 GB"
    assert format_quantity(Q(80, "GiB"), byte_unit="GB") == "85.90 GB"


def test_format_ratio_as_percent():
    assert format_quantity(Q(0.25), "%") == "25.0%"
    assert format_quantity(0.125, "%") == "12.5%"
    assert format_quantity(Q(10, "percent")) == "10.0%"


def test_format_tokens_as_whole_numbers_with_thousands_separators():
    assert format_quantity(Q(131072, "token")) == "131,072 tokens"
    assert format_quantity(Q(41999.9, "token")) == "41,999 tokens"  # never rounds capacity up
