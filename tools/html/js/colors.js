// Colours of slices and frames: bricks by category (as the DOT export), kernels and scopes by a
// hash of their name, so one name keeps its colour in every view; tuned for light and dark.

const CATEGORY_HUE = {
  Norm: 212,
  Attention: 28,
  FFN: 140,
  Other: 275
};

function hashName(text) {
  let x = 0x811c9dc5;  // FNV-1a
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193);
  }
  return x >>> 0;
}

// brick name -> category, from the report's brick table.
function brickCategories(views) {
  const out = new Map();
  for (const b of (views && views.summary && views.summary.bricks) || [])
    out.set(b.name, b.category);
  return out;
}

class Palette {
  constructor(categories) {
    this.categories = categories || new Map();
    this.cache = new Map();
    this.dark = false;
  }

  setScheme(dark) {
    if (dark !== this.dark) this.cache.clear();
    this.dark = dark;
  }

  // [fill, text colour] for a slice of `kind` named `name`.
  of(kind, name) {
    const key = kind + '\u0000' + name;
    let c = this.cache.get(key);
    if (!c) this.cache.set(key, (c = this.compute(kind, name)));
    return c;
  }

  compute(kind, name) {
    const hsh = hashName(name);
    const jitter = ((hsh % 21) - 10);  // -10..10
    const d = this.dark;
    let hue;
    let sat;
    let light;
    switch (kind) {
      case 'layer':
        [hue, sat, light] = [215, 14, d ? 30 : 82];
        break;
      case 'brick': {
        const cat = this.categories.get(name);
        hue = cat in CATEGORY_HUE ? CATEGORY_HUE[cat] + jitter : hsh % 360;
        [sat, light] = cat === 'Other' ? [d ? 22 : 28, d ? 36 : 78] :
                                         [d ? 42 : 62, (d ? 38 : 74) + jitter / 4];
        break;
      }
      case 'scope':
        [hue, sat, light] = [hsh % 360, d ? 18 : 24, d ? 33 : 84];
        break;
      case 'kernel':
        [hue, sat, light] = [hsh % 360, d ? 52 : 66, (d ? 46 : 62) + jitter / 3];
        break;
      case 'transfer':
        [hue, sat, light] =
            [name.includes('DtoH') || name.includes('D2H') ? 350 : 8, d ? 60 : 72, d ? 50 : 64];
        break;
      case 'memset':
        [hue, sat, light] = [300, d ? 30 : 40, d ? 44 : 72];
        break;
      case 'sync':
        [hue, sat, light] = [210, 6, d ? 40 : 70];
        break;
      default:  // root, thread
        [hue, sat, light] = [215, 10, d ? 26 : 88];
    }
    const fill = `hsl(${hue}, ${sat}%, ${light}%)`;
    const text = light > 55 ? (d ? '#0f1216' : '#14171c') : (d ? '#eef1f5' : '#ffffff');
    return [fill, text];
  }
}
