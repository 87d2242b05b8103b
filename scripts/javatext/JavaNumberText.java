// Prints `bits<TAB>Float.toString` (kind f) or `bits<TAB>Double.toString` (kind d) for random bit patterns
// plus edge cases, as the local JVM renders them: the reference table for emulator/connect/javatext.py.
// Usage: java JavaNumberText.java f|d COUNT SEED
import java.io.*;
import java.util.*;

public class JavaNumberText {
    public static void main(String[] a) throws IOException {
        boolean isFloat = a[0].equals("f");
        long count = Long.parseLong(a[1]);
        Random r = new Random(Long.parseLong(a[2]));
        PrintWriter w = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out), 1 << 16));
        List<Long> edge = new ArrayList<>();
        for (int e = -1100; e <= 1100; e++) {  // powers of two, neighbours included
            double p = Math.scalb(1.0, e);
            if (isFloat) { float f = (float) p; if (f != 0 && !Float.isInfinite(f)) { int b = Float.floatToIntBits(f); edge.add((long) b); edge.add((long) b - 1); edge.add((long) b + 1); } }
            else if (p != 0 && !Double.isInfinite(p)) { long b = Double.doubleToLongBits(p); edge.add(b); edge.add(b - 1); edge.add(b + 1); }
        }
        for (int e = -330; e <= 310; e++) {  // powers of ten (1e-3 and 1e7 boundaries among them), neighbours
            double p = Double.parseDouble("1e" + e);
            if (isFloat) { float f = Float.parseFloat("1e" + e); if (f != 0 && !Float.isInfinite(f)) { int b = Float.floatToIntBits(f); edge.add((long) b); edge.add((long) b - 1); edge.add((long) b + 1); } }
            else if (p != 0 && !Double.isInfinite(p)) { long b = Double.doubleToLongBits(p); edge.add(b); edge.add(b - 1); edge.add(b + 1); }
        }
        for (long i = 1; i < 300; i++) { edge.add(i); }  // smallest subnormals
        for (int i = 1; i < 3000; i++) {  // small integers and halves
            edge.add(isFloat ? (long) Float.floatToIntBits(i) : Double.doubleToLongBits(i));
            edge.add(isFloat ? (long) Float.floatToIntBits(i + 0.5f) : Double.doubleToLongBits(i + 0.5));
        }
        if (isFloat) { edge.add((long) Float.floatToIntBits(Float.MAX_VALUE)); edge.add((long) Float.floatToIntBits(Float.MIN_NORMAL)); edge.add((long) Float.floatToIntBits(Float.MIN_NORMAL) - 1); edge.add(0x007fffffL); }
        else { edge.add(Double.doubleToLongBits(Double.MAX_VALUE)); edge.add(Double.doubleToLongBits(Double.MIN_NORMAL)); edge.add(Double.doubleToLongBits(Double.MIN_NORMAL) - 1); edge.add(0x000fffffffffffffL); }
        for (long b : edge) emit(w, isFloat, b, r.nextBoolean());
        for (long i = 0; i < count; i++) {
            if (isFloat) {
                int b = r.nextInt();
                if (((b >>> 23) & 0xff) == 0xff) continue;
                emit(w, true, b & 0xffffffffL, false);
            } else {
                long b = r.nextLong();
                if (((b >>> 52) & 0x7ff) == 0x7ff) continue;
                emit(w, false, b, false);
            }
        }
        w.flush();
    }

    static void emit(PrintWriter w, boolean isFloat, long bits, boolean negate) {
        if (isFloat) {
            int b = (int) bits | (negate ? 0x80000000 : 0);
            w.print(Integer.toHexString(b)); w.print('\t'); w.println(Float.toString(Float.intBitsToFloat(b)));
        } else {
            long b = bits | (negate ? 0x8000000000000000L : 0);
            w.print(Long.toHexString(b)); w.print('\t'); w.println(Double.toString(Double.longBitsToDouble(b)));
        }
    }
}
