Table s = live.summary();
int one = 0, two = 0;
for (int i = 0; i < s.rowCount(); i++) {
    if (s.intColumn("ranks").getInt(i) == 1) one = i;
    if (s.intColumn("ranks").getInt(i) == 2 && s.stringColumn("route").get(i).equals("mpi")) two = i;
}
double noCommSpeedup = s.doubleColumn("epoch_s").getDouble(one)
        / (s.doubleColumn("epoch_s").getDouble(two) - s.doubleColumn("comm_s").getDouble(two));
