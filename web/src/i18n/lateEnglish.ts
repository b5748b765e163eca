/** English's namespaces that only signed-in screens use (i18n/index.ts loadLateEnglish; web/lateEnglish.ts makes them). */
import late from 'virtual:late-english';

export default late;
