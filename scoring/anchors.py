"""What each point of a question's rating scale means, in terms of its rubric."""

ANCHORS_4 = {
    1: "Missed most core points, or showed a red flag",
    2: "Covered some core points; clear gaps",
    3: "Covered the core points",
    4: "Covered the core points and what a strong answer adds",
}


def anchors(scale_max: int) -> list[tuple[int, str]]:
    """Return (value, meaning) for 1..scale_max; the ends always mean the same thing."""
    if scale_max == 4:
        return list(ANCHORS_4.items())
    labels = []
    for value in range(1, scale_max + 1):
        if value == 1:
            text = ANCHORS_4[1]
        elif value == scale_max:
            text = ANCHORS_4[4]
        elif value / scale_max < 0.5:
            text = "Covered some core points; clear gaps"
        elif value / scale_max < 0.75:
            text = "Covered most core points"
        else:
            text = "Covered the core points"
        labels.append((value, text))
    return labels
