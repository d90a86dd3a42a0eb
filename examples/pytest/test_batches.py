from batches import free_workers, split


def test_split_covers_all_items():
    chunks = split(10, free_workers())
    assert sum(chunks) == 10


def test_split_is_even():
    assert split(10, 3) == [4, 3, 3]
