package org.rdmaverbs;

/** java org.rdmaverbs.Layout: this binding's layout lines, as the C layout
 * program prints the system headers' ('STRUCT sizeof N', 'STRUCT.FIELD
 * offset N', 'NAME value N'). */
public final class Layout {
    private Layout() {}

    public static void main(String[] args) throws Exception {
        for (Shape s : RdmaVerbs.structs()) {
            String name = s.getClass().getSimpleName();
            System.out.println(name + " sizeof " + s.size());
            for (String f : s.fields()) {
                System.out.println(name + "." + f + " offset " + s.offsetOf(f));
            }
        }
        for (String c : RdmaVerbs.CONSTANTS) {
            System.out.println(c + " value " + RdmaVerbs.class.getField(c).getInt(null));
        }
    }
}
