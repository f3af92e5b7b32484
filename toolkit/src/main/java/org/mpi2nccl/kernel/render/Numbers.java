package org.mpi2nccl.kernel.render;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers as a reader takes them in: a few significant digits ({@code 0.41185330750000004} shows as
 * {@code 0.412}), whole digits never dropped ({@code 12345.6} shows as {@code 12346}), scientific notation only
 * for the very small and the very large. Tables and arrays the kernel shows use it.
 */
public final class Numbers {
    private Numbers() {
    }

    /** {@code value} with {@code digits} significant digits (trailing zeros dropped). */
    public static String format(double value, int digits) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.toString(value);
        }
        if (value == 0) {
            return "0";
        }
        double abs = Math.abs(value);
        if (abs < 1e-4 || abs >= 1e9) {
            return String.format(java.util.Locale.ROOT, "%." + (digits - 1) + "e", value);
        }
        BigDecimal d = new BigDecimal(value);
        if (abs >= Math.pow(10, digits)) {
            d = d.setScale(0, RoundingMode.HALF_EVEN); // whole digits stay
        } else {
            d = d.round(new MathContext(digits, RoundingMode.HALF_EVEN));
        }
        String s = d.stripTrailingZeros().toPlainString();
        return s.equals("-0") ? "0" : s;
    }
}
