Lesson04.BusBandwidthFormula busbw = (bytes, seconds, ranks) -> {
    double algbw = bytes / seconds / 1e9;
    return algbw * 2 * (ranks - 1) / ranks;
};
