"""The filter language: parsing errors name the bad part, evaluation follows the documented rules, masks gather."""

import numpy as np
import pytest

from rag_bench.core.errors import DataError
from rag_bench.core.filters import MetadataTable, parse_filter

DOC = {"product": "kg-450", "acl": ["engineering", "support"], "date": 20240920, "score": 1, "draft": True}


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"product": "kg-450"}, True),
        ({"product": "kg-200"}, False),
        ({"acl": "support"}, True),  # a list-valued field matches when any element does
        ({"acl": "finance"}, False),
        ({"acl": {"$in": ["finance", "engineering"]}}, True),
        ({"acl": {"$nin": ["finance", "legal"]}}, True),
        ({"acl": {"$nin": ["finance", "support"]}}, False),  # $nin: no element may be listed
        ({"missing": {"$nin": ["x"]}}, True),  # a document without the field passes $nin
        ({"missing": "x"}, False),
        ({"missing": {"$gte": 0}}, False),
        ({"date": {"$gte": 20240101, "$lt": 20250101}}, True),
        ({"date": {"$gt": 20240920}}, False),
        ({"date": {"$lte": 20240920}}, True),
        ({"score": 1.0}, True),  # numbers compare as numbers
        ({"score": True}, False),  # a boolean equals only a boolean
        ({"draft": 1}, False),
        ({"draft": True}, True),
        ({"product": {"$gte": 1}}, False),  # a range never matches a string
        ({"$or": [{"product": "kg-200"}, {"acl": "support"}]}, True),
        ({"$and": [{"product": "kg-450"}, {"acl": "finance"}]}, False),
        ({"product": "kg-450", "acl": "finance"}, False),  # several keys: and
        ({"$and": [{"$or": [{"draft": False}, {"score": {"$in": [2, 1]}}]}, {"date": {"$gt": 2}}]}, True),
    ],
)
def test_evaluation_by_hand(flt, expected):
    assert parse_filter(flt).matches(DOC) is expected


def test_canonical_source_and_fields():
    a = parse_filter({"b": 1, "a": {"$in": ["x"]}})
    b = parse_filter({"a": {"$in": ["x"]}, "b": 1})
    assert a.source == b.source == '{"a":{"$in":["x"]},"b":1}'
    assert a.fields == {"a", "b"}


@pytest.mark.parametrize(
    ("flt", "field", "problem"),
    [
        ({}, "filter", "non-empty object"),
        ([], "filter", "non-empty object"),
        ({"$not": {"a": 1}}, "filter.$not", "unknown operator"),
        ({"a": {"$regex": "x"}}, "filter.a.$regex", "unknown operator"),
        ({"a": {"$in": []}}, "filter.a.$in", "non-empty list"),
        ({"a": {"$in": "x"}}, "filter.a.$in", "non-empty list"),
        ({"a": {"$gte": "2024-01-01"}}, "filter.a.$gte", "numbers only"),
        ({"a": {"$lt": True}}, "filter.a.$lt", "numbers only"),
        ({"a": [1, 2]}, "filter.a", "string, number or boolean"),
        ({"a": None}, "filter.a", "string, number or boolean"),
        ({"$or": [{"a": 1}, {"b": {}}]}, "filter.$or[1].b", "must name an operator"),
        ({"$and": []}, "filter.$and", "non-empty list"),
    ],
)
def test_parse_errors_name_the_part(flt, field, problem):
    with pytest.raises(DataError) as caught:
        parse_filter(flt, "questions.jsonl", 7)
    assert caught.value.line == 7 and caught.value.field == field
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"questions.jsonl:7: {field}: ")


def test_masks_evaluate_each_distinct_metadata_once_and_gather():
    metadata = [{"acl": ["all"]}, {"acl": ["hr"]}, {"acl": ["all"]}, {}, {"acl": ["hr", "all"]}]
    table = MetadataTable(metadata)
    assert len(table.distinct) == 4
    flt = parse_filter({"acl": "all"})
    np.testing.assert_array_equal(table.mask(flt), [True, False, True, False, True])
    assert table.masks([None, flt])[0] is None
    with pytest.raises(ValueError):
        table.mask(flt)[0] = False  # masks are shared: read-only
