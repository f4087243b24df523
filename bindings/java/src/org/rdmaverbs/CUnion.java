package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.Union;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;

/** The base of the binding's unions (ibv_send_wr.wr, rdma_cm_event.param,
 * ibv_gid ...): a JNA Union, which writes one member to C, and reads every
 * member back.
 *
 * <p>Written (before a call that takes the struct holding it): the member
 * {@code setType} named, else the one member the program set (a field not
 * zero, not null), which is then the union's type until {@code setType}
 * names another; nothing when no member is set; and when several are, with
 * no {@code setType}, an IllegalStateException (which one C is to see
 * cannot be told). Read (after C wrote it, or by the constructor that
 * takes a Pointer): every member, each from the same bytes. */
public abstract class CUnion extends Union implements Shape {
    private String chosen;
    private boolean inner;

    protected CUnion() {}

    protected CUnion(Pointer p) {
        super(p);
    }

    @Override
    public List<String> fields() {
        return getFieldOrder();
    }

    @Override
    public int offsetOf(String field) {
        return fieldOffset(field);
    }

    @Override
    public void setType(String name) {
        super.setType(name);
        if (!inner) chosen = name;
    }

    @Override
    public void setType(Class<?> type) {
        super.setType(type);
        if (!inner) {
            for (String f : getFieldOrder()) {
                if (field(f).getType() == type) chosen = f;
            }
        }
    }

    /** The member set by setType, or the one the program set, or null. */
    private String written() {
        if (chosen != null) return chosen;
        String set = null;
        for (String f : getFieldOrder()) {
            if (!isSet(value(f))) continue;
            if (set != null) {
                throw new IllegalStateException(getClass().getSimpleName() + ": both " + set + " and "
                    + f + " are set; setType(\"" + f + "\") or setType(\"" + set + "\") says which C sees");
            }
            set = f;
        }
        chosen = set;
        return set;
    }

    @Override
    protected void writeField(StructField field) {
        if (!field.name.equals(written())) return;
        inner = true;
        try {
            super.setType(field.name);
            super.writeField(field);
        } finally {
            inner = false;
        }
    }

    @Override
    protected Object readField(StructField field) {
        inner = true;
        try {
            super.setType(field.name);
            return super.readField(field);
        } finally {
            inner = false;
        }
    }

    private Field field(String name) {
        try {
            return getClass().getField(name);
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
    }

    private Object value(String name) {
        try {
            return field(name).get(this);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether a value is other than zero or null: a struct's or an array's
     * any element. */
    static boolean isSet(Object v) {
        if (v == null) return false;
        if (v instanceof Number) return ((Number) v).longValue() != 0;
        if (v instanceof Pointer) return Pointer.nativeValue((Pointer) v) != 0;
        if (v.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(v); i++) {
                if (isSet(Array.get(v, i))) return true;
            }
            return false;
        }
        if (v instanceof Structure) {
            for (Field f : v.getClass().getFields()) {
                if (Modifier.isStatic(f.getModifiers())) continue;
                try {
                    if (isSet(f.get(v))) return true;
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
            return false;
        }
        return true;
    }
}
