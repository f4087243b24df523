package org.rdmaverbs;

import java.util.List;

/** A struct or union of the binding, whose size, field order and offsets
 * can be read (for the layout check). */
public interface Shape {
    /** The fields, in the C order. */
    List<String> fields();

    /** A field's offset. */
    int offsetOf(String field);

    /** Its size, as JNA lays it out. */
    int size();
}
