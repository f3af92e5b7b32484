long perRankMiB = report.memoryBytes() / 4 / (1024 * 1024);
